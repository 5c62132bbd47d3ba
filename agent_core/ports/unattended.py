"""What every command Heron runs is told so that it never waits for a person: one table.

Nobody reads a command's terminal while it runs (the model sees its output once it ends), so a
pager, an editor or a password prompt would only hang it until its time limit. Its stdin is
closed (``/dev/null``) and it has no controlling terminal, which stops most prompts; these
variables stop the programs that ask anyway, each through a documented switch. A program
started with ``interactive=true`` gets the same table: the model types into it through
``process``, but it still cannot drive a pager or ``vi``, nor should it type credentials.

The values override what Heron inherited (an inherited ``EDITOR=vim`` or ``PAGER=less`` is
exactly what hangs a command); a command's own ``NAME=value`` prefix still wins, since the
shell applies it last. Weighed and left out:

- ``CI=1``: it does stop some prompts and watchers, but it also changes what tests do (Jest's
  ``--ci`` writes no new snapshots, Playwright changes retries and workers, Turborepo its
  caching, many tools their output), so the model's run would no longer be the user's run.
- ``npm_config_yes=true``: ``npm exec``/``npx`` already assume ``--yes`` when stdin is not a
  terminal; setting it would also silently install packages in the interactive case, where
  the model should see npm's question.
- ``GIT_SSH_COMMAND`` with ``BatchMode=yes``: it would replace a user's own ssh command; ssh
  asks for a passphrase on ``/dev/tty``, which a command without a controlling terminal lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Setting(NamedTuple):
    name: str
    value: str
    why: str


UNATTENDED: tuple[Setting, ...] = (
    Setting("GIT_TERMINAL_PROMPT", "0", "git fails instead of asking for a user name or password"),
    Setting("GCM_INTERACTIVE", "never", "Git Credential Manager fails instead of opening a prompt"),
    Setting("GIT_PAGER", "cat", "git log, diff and show print everything instead of paging"),
    Setting("PAGER", "cat", "man, systemctl, psql and the rest print instead of paging"),
    Setting("GIT_EDITOR", "true", "commit without -m aborts; merge, amend keep their message"),
    Setting("GIT_SEQUENCE_EDITOR", "false", "rebase -i fails at once rather than rebase as is"),
    Setting("EDITOR", "true", "programs that open an editor get it back unchanged at once"),
    Setting("VISUAL", "true", "the same for programs that prefer VISUAL over EDITOR"),
    Setting("DEBIAN_FRONTEND", "noninteractive", "apt and dpkg take debconf's default answers"),
    Setting("PIP_NO_INPUT", "1", "pip fails instead of asking (credentials, confirmations)"),
)


def unattended(environment: Mapping[str, str]) -> dict[str, str]:
    """``environment`` with the table laid over it."""
    return {**environment, **{s.name: s.value for s in UNATTENDED}}
