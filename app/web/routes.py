"""Every router is mounted here, one include per audience (judges, admin, public, pages, feeds)."""

from fastapi import APIRouter

from app.web import admin, health, judges, live, public

router = APIRouter()
router.include_router(health.router)
router.include_router(judges.router)
router.include_router(admin.router)
router.include_router(public.router)
router.include_router(live.router)
