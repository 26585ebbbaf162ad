"""Installing, updating and removing plugins and skills: one pipeline, two thin front ends.

    parse_source -> stage (fetch into a staging folder, validate)    pipeline.py, adapters/
    -> compare with what is installed -> approve new permissions     approval.py
    -> pip install --with-deps into the staged folder                 deps.py
    -> swap into place + approvals + lockfile, all or nothing         swap.py, records.py
    -> audit -> sync the index                                        records.py, pipeline.py

kinds.py says what differs between a plugin and a skill; plugin.py and skill.py are the use
cases the CLI calls. Anything failing before the commit leaves the previous version, lockfile
and approvals as they were; a killed install is rolled back by the next install command.
"""
