"""Classes of dangerous commands that ask in ``full-access``, by class rather than by spelling:
files emptied in place whose name is known only at run time or by perl/awk in place; runners
that run a package's program (``pnpm prisma``, ``yarn workspace db prisma``, ``docker compose
exec``); and table rows (cloud storage, helmfile, terragrunt, dotnet ef, a system reset, SQL
that changes rows inside a CTE). The same programs' ordinary uses must not ask."""

from __future__ import annotations

import pytest

from agent_core.safety.judge import judge
from agent_core.safety.policy import Command, decide


def _asks(command: str, *, checkpointed: bool = False) -> bool:
    return decide("full-access", Command(command, checkpointed=checkpointed))[0] == "ask"


def _runs(command: str) -> bool:
    return decide("full-access", Command(command)) == ("allow", None)


# Files emptied in place, named only at run time: no checkpoint of the turn can vouch for them.
_NOTHING = [": >", ">", "true >", "echo -n >", "printf '' >", "cat /dev/null >", ": >|"]
_RUN_TIME_FILES = ['"$F"', "$F", "${OUT}", "$(echo f)", "`echo f`", '"$DIR"/notes.md']


@pytest.mark.parametrize("target", _RUN_TIME_FILES)
@pytest.mark.parametrize("nothing", _NOTHING)
def test_nothing_redirected_over_a_file_named_at_run_time_asks(nothing: str, target: str) -> None:
    command = f"{nothing} {target}"
    assert None in judge(command).emptied_files, command
    assert _asks(command), command


@pytest.mark.parametrize(
    "command",
    [
        "for f in a b; do : > $f; done",
        'for f in *.log; do > "$f"; done',
        'F=notes.md; : > "$F"',
        ': | tee "$F"',
        "ls && : > $(echo f)",
        "sh -c ': > \"$1\"' _ notes.md",
    ],
)
def test_emptying_through_loops_variables_and_shells_asks(command: str) -> None:
    assert _asks(command), judge(command)


@pytest.mark.parametrize(
    "command",
    [
        'echo x > "$F"',
        'pytest > "$OUT"',
        'make 2> "$LOG"',
        ': >> "$LOG"',
        'echo hi >> "$F"',
        "for f in a b; do echo $f > $f.txt; done",
        'printf "%s\\n" a > "$F"',
    ],
)
def test_content_written_to_a_file_named_at_run_time_runs(command: str) -> None:
    assert not judge(command).emptied, command
    assert _runs(command), judge(command)


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("perl -i -ne '' notes.md", ("notes.md",)),
        ("perl -ni -e '' notes.md", ("notes.md",)),
        ("perl -0777 -i -ne '' notes.md", ("notes.md",)),
        ("perl -pi -e '$_=\"\"' notes.md", ("notes.md",)),
        ("perl -pi.bak -e '$_ = \"\"' notes.md a.txt", ("notes.md", "a.txt")),
        ("perl -i -pe 'undef $_' notes.md", ("notes.md",)),
        ("perl -i -pe 's/.*//s' notes.md", ("notes.md",)),
        ("awk -i inplace 'NR==0' notes.md", ("notes.md",)),
        ("gawk -i inplace '{}' notes.md", ("notes.md",)),
        ("awk -i inplace '0' notes.md", ("notes.md",)),
        ("awk --include=inplace '{ n++ }' notes.md", ("notes.md",)),
        ("awk -iinplace 'END { }' notes.md", ("notes.md",)),
    ],
)
def test_perl_and_awk_printing_nothing_in_place_empty_the_file(
    command: str, files: tuple[str, ...]
) -> None:
    assert judge(command).emptied_files == files
    assert _asks(command)
    assert not _asks(command, checkpointed=True)  # the checkpoint keeps them: /undo restores


IN_PLACE_ORDINARY = [
    "perl -i -pe 's/a/b/' notes.md",
    "perl -pi -e 's/foo/bar/g' src/*.py",
    "perl -i -ne 'print unless /^#/' notes.md",
    "perl -i.bak -ne 'print if 1' notes.md",
    "perl -ne '' notes.md",  # not in place: prints nothing, changes nothing
    "perl -pi -e '$_ = \"\" if /secret/' notes.md",
    "perl script.pl -i notes.md",
    "awk -i inplace '{gsub(/a/, \"b\")} 1' notes.md",
    "awk -i inplace '{ $1 = \"\" } 1' notes.md",
    "awk -i inplace '/keep/' notes.md",
    "awk -i inplace '{ print $2 }' notes.md",
    "awk -i inplace 'BEGIN { x = 1 }' notes.md",  # reads no file
    "awk 'NR==0' notes.md",
    "awk '{}' notes.md",
    "awk -F, '{ print $1 }' data.csv",
]


@pytest.mark.parametrize("command", IN_PLACE_ORDINARY)
def test_perl_and_awk_editing_in_place_run(command: str) -> None:
    assert not judge(command).emptied, command
    assert _runs(command), judge(command)


# Package managers that run a package's program (as npx does), and commands in a compose service.
_RUN_BY_MANAGER = [
    "pnpm {c}",
    "pnpm --filter db {c}",
    "pnpm -C packages/db {c}",
    "yarn {c}",
    "yarn run {c}",
    "yarn --cwd packages/db {c}",
    "yarn workspace db {c}",
    "yarn workspaces foreach -A run {c}",
    "yarn workspaces foreach --include db -pt {c}",
    "bun run {c}",
]
_PACKAGE_PROGRAMS = [
    "prisma migrate reset --force",
    "prisma db push --force-reset",
    "sequelize db:drop",
    "rimraf dist",
    "cdk destroy",
]


@pytest.mark.parametrize("program", _PACKAGE_PROGRAMS)
@pytest.mark.parametrize("manager", _RUN_BY_MANAGER)
def test_a_package_program_run_by_a_package_manager_is_judged(manager: str, program: str) -> None:
    command = manager.format(c=program)
    assert _asks(command), judge(command)


@pytest.mark.parametrize(
    "command",
    [
        "yarn workspace a npm publish",
        "yarn workspace a publish",
        "yarn workspace a run prisma migrate reset --force",
        "yarn workspace a global remove typescript",
    ],
)
def test_a_yarn_command_in_a_workspace_is_judged_as_that_command(command: str) -> None:
    assert _asks(command), judge(command)


@pytest.mark.parametrize(
    "command",
    [
        'docker compose exec db psql -c "DROP TABLE x"',
        'podman compose exec db psql -c "DROP TABLE x"',
        'nerdctl compose exec db psql -c "DROP TABLE x"',
        'docker compose -f compose.yml -p app exec -T db psql -c "DROP TABLE x"',
        "docker compose exec -u postgres db dropdb app",
        "docker compose run --rm web python manage.py flush --noinput",
        "docker-compose run --rm -e X=1 web rm -rf /data",
        "podman-compose exec db dropdb app",
        "echo 'drop table users;' | docker compose exec -T db psql -U app",
    ],
)
def test_what_runs_in_a_compose_service_is_judged_like_what_runs_here(command: str) -> None:
    assert _asks(command), judge(command)


MANAGERS_ORDINARY = [
    "pnpm remove lodash",
    "pnpm rm lodash",
    "pnpm uninstall lodash",
    "yarn remove lodash",
    "npm remove lodash",
    "pnpm install",
    "pnpm add -D vitest",
    "pnpm build",
    "pnpm --filter web build",
    "pnpm prisma migrate dev",
    "pnpm prisma generate",
    "yarn",
    "yarn build",
    "yarn test --watch",
    "yarn run build",
    "yarn workspace web build",
    "yarn workspace web add lodash",
    "yarn workspaces foreach -A run build",
    "yarn workspaces foreach --include web -pt run test",
    "yarn prisma migrate deploy",
    "bun run build",
    "bun run index.ts",
    "docker compose exec db psql -c 'select 1'",
    "docker compose exec web ls",
    "docker compose run --rm web pytest",
    "docker compose up -d",
    "docker compose logs -f web",
]


@pytest.mark.parametrize("command", MANAGERS_ORDINARY)
def test_ordinary_package_manager_and_compose_commands_run(command: str) -> None:
    assert _runs(command), judge(command)


def test_a_script_run_by_a_package_manager_is_never_only_a_read() -> None:
    for command in ("yarn cat README.md", "pnpm ls-files", "docker compose exec web ls"):
        assert not judge(command).read_only, command


# Table rows: cloud storage, helmfile, terragrunt, dotnet ef, a container system reset.
ROWS = [
    "gcloud storage rm -r gs://b",
    "gcloud storage rm gs://b/x.txt",
    "gcloud --project p storage rm --recursive gs://b",
    "gcloud storage rb gs://b",
    "helmfile destroy",
    "helmfile delete",
    "helmfile -e prod destroy",
    "helmfile --environment=prod -f helmfile.yaml destroy",
    "helmfile -l name=web destroy",
    "terragrunt destroy",
    "terragrunt run-all destroy",
    "terragrunt run-all destroy --terragrunt-non-interactive",
    "terragrunt run-all apply -destroy",
    "terragrunt run --all destroy",
    "terragrunt run --all -- destroy",
    "dotnet ef database drop -f",
    "dotnet ef database drop --force --project src/Api",
    "dotnet-ef database drop",
    "docker system reset -f",
    "podman system reset -f",
    "podman system reset",
]
ROWS_ORDINARY = [
    "gcloud storage ls gs://b",
    "gcloud storage cp a.txt gs://b/a.txt",
    "gcloud storage buckets list",
    "helmfile apply",
    "helmfile -e prod sync",
    "helmfile diff",
    "helmfile template",
    "helmfile lint",
    "helmfile -l name=web status",
    "terragrunt plan",
    "terragrunt run-all plan",
    "terragrunt run --all plan",
    "terragrunt init",
    "dotnet ef database update",
    "dotnet ef migrations add Init",
    "dotnet build",
    "docker system df",
    "podman system info",
]


@pytest.mark.parametrize("command", ROWS)
def test_table_rows_ask(command: str) -> None:
    verdict, reason = decide("full-access", Command(command))
    assert verdict == "ask" and reason, judge(command)


@pytest.mark.parametrize("command", ROWS_ORDINARY)
def test_the_same_programs_ordinary_verbs_run(command: str) -> None:
    assert _runs(command), judge(command)


# SQL that changes every row inside a CTE or another parenthesis.
CTE_CHANGES = [
    "with x as (delete from users returning *) select 1",
    "WITH x AS (DELETE FROM users RETURNING id) SELECT count(*) FROM x",
    "with x as (update users set admin = 1 returning id) select * from x where id = 3",
    "with a as (select 1), b as (delete from t where 1=1) select 1",
    "with x as ( delete from users where true returning * ) insert into archive select * from x",
]
CTE_ORDINARY = [
    "with x as (delete from users where id = 3 returning *) select 1",
    "with x as (update users set a = 1 where id = 2 returning id) select * from x",
    "with x as (select id from t) select * from x",
    "delete from users where id in (select id from banned)",
    "select (1)",
]


@pytest.mark.parametrize("sql", CTE_CHANGES)
def test_a_change_of_every_row_inside_a_cte_asks(sql: str) -> None:
    for command in (f'psql -c "{sql}"', f"echo '{sql};' | psql app", f'sqlite3 a.db "{sql}"'):
        assert _asks(command), command


@pytest.mark.parametrize("sql", CTE_ORDINARY)
def test_a_restricted_change_inside_a_cte_runs(sql: str) -> None:
    assert _runs(f'psql -c "{sql}"'), sql
