"""Running a model-written Python script that calls Heron's tools (``execute_code``).

``stub`` writes the ``heron_tools`` module the script imports, ``rpc`` answers its calls over a
Unix-domain socket, ``interpreter`` picks the Python to run it with, and ``runner`` runs it with
its limits. The tool that ties them to approvals and the editor is ``tools/execute_code.py``.
"""
