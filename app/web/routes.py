"""Every router is mounted here, one include per audience (judges, admin, public, pages, feeds).
The live feed's websocket is not a route: it goes past the routers (app/web/live.py).
"""

from fastapi import APIRouter

from app.web import (
    admin,
    admin_pages,
    calls,
    checkin_admin,
    checkin_pages,
    feeds,
    hall,
    head_judge,
    health,
    judge_pages,
    judges,
    metrics_page,
    overlay,
    public,
    scorer,
    spectator,
)

router = APIRouter()
router.include_router(health.router)
router.include_router(metrics_page.router)
router.include_router(judges.router)
router.include_router(head_judge.router)
router.include_router(calls.router)  # the head judge's desk (issue 18, part 3)
router.include_router(calls.pages)
router.include_router(admin.router)
router.include_router(public.router)
router.include_router(feeds.router)
# Pages, one module per audience (issue 6).
router.include_router(hall.router)
router.include_router(overlay.router)
router.include_router(spectator.router)
router.include_router(judge_pages.router)
router.include_router(admin_pages.router)
router.include_router(scorer.router)  # the paper fallback: sheets and the scorer (issue 18)
# check-in and no-shows (issue 18, part 4): the organizer's desk, the player's phone
router.include_router(checkin_admin.router)
router.include_router(checkin_pages.api)
router.include_router(checkin_pages.pages)
