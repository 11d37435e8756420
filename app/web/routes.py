"""Every router is mounted here, one include per audience (judges, admin, public, pages, feeds)."""

from fastapi import APIRouter

from app.web import health, judges

router = APIRouter()
router.include_router(health.router)
router.include_router(judges.router)
