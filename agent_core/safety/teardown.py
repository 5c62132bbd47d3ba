"""Tearing down what a project stands on: framework and migration resets that wipe a database,
infrastructure destroyed, and installed packages removed from the machine or an environment.

Rows of (programs, condition, reason), read like ``dangerous.py``'s (it includes them), over
the arguments after ``grammar.normal_args``. A framework's script is judged by its name
however it is started: ``python manage.py flush``, ``./manage.py flush``, ``uv run
manage.py flush``, ``php artisan migrate:fresh``, ``bundle exec rails db:reset``.
"""

from __future__ import annotations

from agent_core.safety.argv import Rule, flag, names, operand, sub, words

WIPES = "wipes or resets a database"
DESTROYS = "destroys deployed infrastructure"
REMOVES = "removes installed packages"


def _zero(value: str) -> bool:
    return value.lower() in ("zero", "base", "0")


TEARDOWN_RULES: tuple[Rule, ...] = (
    # Frameworks and migration tools.
    (
        ("manage.py", "django-admin", "django"),
        sub("flush", "reset_db", "reset_schema", "drop_test_database", "sqlflush")
        | sub("migrate", then=operand(_zero, "zero")),
        WIPES,
    ),
    (
        ("prisma",),
        words("migrate", "reset")
        | (words("db", "push") & flag("--force-reset", "--accept-data-loss")),
        WIPES,
    ),
    (
        ("rails", "rake"),
        sub(
            *names(
                "db:drop db:drop:all db:reset db:purge db:purge:all db:truncate_all "
                "db:migrate:reset db:schema:load db:seed:replant"
            )
        ),
        WIPES,
    ),
    (("alembic",), sub("downgrade", then=operand(_zero, "base")), WIPES),
    (("flask",), words("db", "downgrade") & operand(_zero, "base"), WIPES),
    (
        ("artisan",),
        sub("migrate:fresh", "migrate:reset", "migrate:refresh", "db:wipe"),
        WIPES,
    ),
    (
        ("console",),
        sub("doctrine:database:drop", "doctrine:schema:drop", "doctrine:fixtures:load"),
        WIPES,
    ),
    (("knex",), sub("migrate:rollback", then=flag("--all")), WIPES),
    (
        ("sequelize", "sequelize-cli"),
        sub("db:drop", "db:migrate:undo:all", "db:seed:undo:all"),
        WIPES,
    ),
    (("typeorm",), sub("schema:drop"), WIPES),
    (("drizzle-kit",), sub("drop", "push:force"), WIPES),
    (("supabase",), words("db", "reset"), WIPES),
    (("dbmate",), sub("drop"), WIPES),
    (("flyway",), sub("clean"), WIPES),
    (("liquibase",), sub("drop-all", "dropall"), WIPES),
    (("mix",), sub("ecto.drop", "ecto.reset"), WIPES),
    (("diesel",), words("database", "reset"), WIPES),
    (("sqlx",), words("database", "drop") | words("database", "reset"), WIPES),
    (("goose",), sub("reset"), WIPES),
    (("migrate",), sub("drop") | sub("down", then=flag("-all")), WIPES),
    (("dotnet",), words("ef", "database", "drop"), WIPES),
    (("dotnet-ef",), words("database", "drop"), WIPES),
    # Containers and their volumes.
    (
        ("docker", "podman", "nerdctl"),
        sub(
            "compose",
            then=sub("down", then=flag("-v", "--volumes"))
            | sub("rm", then=flag("-v", "--volumes")),
        ),
        "deletes a project's volumes (its databases' data)",
    ),
    (
        ("docker-compose", "podman-compose"),
        sub("down", then=flag("-v", "--volumes")) | sub("rm", then=flag("-v")),
        "deletes a project's volumes (its databases' data)",
    ),
    # Infrastructure.
    (
        ("terraform", "tofu", "terragrunt"),
        sub("apply", then=flag("-destroy", "--destroy")) | words("workspace", "delete"),
        DESTROYS,
    ),
    (("pulumi",), words("stack", "rm"), DESTROYS),
    (("cdk", "cdktf"), sub("destroy"), DESTROYS),
    (("serverless", "sls"), sub("remove"), DESTROYS),
    (("sam",), sub("delete"), DESTROYS),
    (("vercel",), sub("remove", "rm"), DESTROYS),
    (("fly", "flyctl"), words("apps", "destroy") | sub("destroy"), DESTROYS),
    (
        ("heroku",),
        sub("apps:destroy", "destroy", "pg:reset", "addons:destroy"),
        DESTROYS,
    ),
    (
        ("terragrunt",),
        sub(
            "run-all", "run", then=sub("destroy") | sub("apply", then=flag("-destroy", "--destroy"))
        ),
        DESTROYS,
    ),
    (("helmfile",), sub("destroy", "delete"), "deletes cluster resources (every release)"),
    (("gsutil",), sub("rm", "rb"), "deletes cloud storage"),
    (("gcloud",), words("storage", "rm") | words("storage", "rb"), "deletes cloud storage"),
    # Package removal.
    (("pip", "pip3", "pipx"), sub("uninstall", "uninstall-all"), REMOVES),
    (("uv",), words("pip", "uninstall") | words("tool", "uninstall"), REMOVES),
    (
        ("conda", "mamba", "micromamba"),
        sub("remove", "uninstall") | words("env", "remove"),
        REMOVES,
    ),
    (("apt", "apt-get", "aptitude"), sub("remove", "purge", "autoremove"), REMOVES),
    (("dnf", "yum", "zypper"), sub("remove", "erase", "autoremove", "rm"), REMOVES),
    (("pacman",), flag("-R", "--remove"), REMOVES),
    (("apk",), sub("del"), REMOVES),
    (("dpkg",), flag("-r", "-P", "--remove", "--purge"), REMOVES),
    (("rpm",), flag("-e", "--erase"), REMOVES),
    (("brew",), sub("uninstall", "remove", "rm", "autoremove"), REMOVES),
    (("port",), sub("uninstall"), REMOVES),
    (("snap",), sub("remove"), REMOVES),
    (("flatpak",), sub("uninstall", "remove"), REMOVES),
    (("gem",), sub("uninstall"), REMOVES),
    (("cargo",), sub("uninstall"), REMOVES),
    (("rustup",), words("toolchain", "uninstall") | words("self", "uninstall"), REMOVES),
    (("nix-env",), flag("-e", "--uninstall"), REMOVES),
    (
        ("npm", "pnpm", "bun"),
        flag("-g", "--global") & sub("uninstall", "remove", "rm", "un", "r", "unlink"),
        REMOVES,
    ),
    (("yarn",), words("global", "remove"), REMOVES),
)
