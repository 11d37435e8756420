"""Data feeds for broadcast graphics (issue 6)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["feeds"])
