"""Every router is mounted here, one include per audience (judges, admin, public, pages, feeds)."""

from fastapi import APIRouter

from app.web import (
    admin,
    admin_pages,
    feeds,
    hall,
    health,
    judge_pages,
    judges,
    live,
    overlay,
    public,
    spectator,
)

router = APIRouter()
router.include_router(health.router)
router.include_router(judges.router)
router.include_router(admin.router)
router.include_router(public.router)
router.include_router(live.router)
router.include_router(feeds.router)
# Pages, one module per audience (issue 6).
router.include_router(hall.router)
router.include_router(overlay.router)
router.include_router(spectator.router)
router.include_router(judge_pages.router)
router.include_router(admin_pages.router)
