"""The summary's readers, one module per input (each names its file), plus ``worktree``
(git's answers), ``references`` (what the handoff names, checked) and ``text`` (what they
share). The interventions log is read by ``lets_hooks.summary.interventions``.

Each reader returns a ``Read``: plain records (``None`` when the file does not exist, so
its phase is skipped) and one-line warnings. Readers never raise on bad input (an
unreadable, oversized, non-UTF-8 or malformed file is a warning; what could be read is
returned), parse without deciding (that is ``phases``), and name files the way the user
knows them (``memory/MEMORY.md``, ``~/.claude/settings.json``), never by absolute path.
"""
