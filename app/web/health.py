"""Liveness check for load balancers, container health checks and the people running the hall."""

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

from app import __version__

router = APIRouter(prefix="/api", tags=["health"])


class Health(BaseModel):
    status: Literal["ok"]
    version: str


@router.get("/health")
async def health() -> Health:
    return Health(status="ok", version=__version__)
