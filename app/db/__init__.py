"""SQLModel tables and every query over them (one place for every select)."""
