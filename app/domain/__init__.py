"""Pure tournament rules: no I/O, no clock, no ORM.

Everything here takes its inputs (the log, the time, the seed) as arguments, so the
whole tournament can be recomputed and audited from its log (STYLE.md, convention 2).
"""
