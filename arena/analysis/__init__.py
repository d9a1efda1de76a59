"""Double-dummy analysis (issue 23): the solver (:mod:`.solver`, over the numba search of
:mod:`.search`) and the analysis of played boards (:mod:`.boards`).

Double dummy means perfect information: a yardstick of card play, not a verdict on it.
"""
