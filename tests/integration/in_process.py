"""Database timeouts of the test process's own engines and apps (not of the servers it starts).

The in-process fixtures' sessions get a longer idle-in-transaction timeout than a server's
4 s: late in a full run this large pytest process stalls for seconds now and then, and
PostgreSQL ended healthy fixture imports and page reads as if their process were frozen
(seen at 2 s and at 4 s, in full runs only). The servers the stuck-parts tests start keep the
defaults (tests/integration/test_stuck_parts.py).
"""

from app.db.engine import DatabaseTimeouts

IN_PROCESS_TIMEOUTS = DatabaseTimeouts(idle_in_transaction=30.0)
