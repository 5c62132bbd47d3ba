"""Package managers that run a package's program when the word after them is not one of their
own commands, as ``npx`` does: ``pnpm prisma migrate reset`` is ``pnpm exec prisma migrate
reset`` (pnpm runs a script of that name, else the program), ``yarn prisma …`` and ``yarn run
prisma …`` likewise; ``yarn workspace db CMD`` is ``yarn CMD`` in one workspace. Read by
``launchers.runner``.

Each manager's own commands are listed here in full (aliases too): a word missing from its list
would be taken for a program (``pnpm rm lodash`` read as ``rm lodash``), so the lists follow the
managers' documentation. What such a script or program does is not known from its name, so
running one is never only a read (``launches.runs_package``).
"""

from __future__ import annotations

from agent_core.safety.argv import names

# npm's commands that pnpm hands to npm, and yarn 1's and berry's own.
_NPM_PASSED = names(
    "access adduser bugs deprecate dist-tag docs edit find home info issues login logout owner "
    "ping prefix profile pkg repo s se search set-script show star stars team token unpublish "
    "unstar v version view whoami xmas"
)
# Manager -> its own commands: any other first word is a script or a package's program.
OWN_COMMANDS: dict[str, frozenset[str]] = {
    "pnpm": _NPM_PASSED
    | names(
        "add i install install-test it update up upgrade remove rm uninstall un link ln unlink "
        "import rebuild rb prune fetch dedupe patch patch-commit patch-remove audit list ls ll "
        "la outdated why licenses run run-script test t tst exec dlx create start publish pack "
        "recursive multi m server store root bin setup init deploy doctor config c get set env "
        "self-update cat-file cat-index find-hash help approve-builds ignored-builds catalog "
        "completion sbom cache add-to-catalog outdated query explain stop restart runtime "
        "fund licenses audit npm node x pnpx"
    ),
    "yarn": names(
        "access add audit autoclean bin cache check config constraints create dedupe dlx exec "
        "explain generate-lock-entry global help import info init install licenses link list "
        "login logout node npm outdated owner pack patch patch-commit plugin policies publish "
        "rebuild remove run search set stage tag team test unlink unplug up upgrade "
        "upgrade-interactive version versions why workspace workspaces sdks start import "
        "unpublish deprecate dist-tag ls"
    ),
}
# `yarn workspace NAME CMD`: CMD is yarn's again, in that workspace.
IN_WORKSPACE = {("yarn", "workspace")}
# `yarn workspaces foreach [OPTIONS] CMD`: CMD is yarn's again, in every workspace; the options
# that take a value (the rest are flags).
FOREACH_VALUED = names(
    "--from --include --exclude -j --jobs --since -R --recursive-from --worktree-from"
)


def runs_program(manager: str, command: str | None) -> bool:
    """``pnpm COMMAND``: a script or a package's program, not one of pnpm's commands."""
    own = OWN_COMMANDS.get(manager)
    return own is not None and command is not None and command.lower() not in own
