"""Pages: see the module's routes (issue 6)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
