from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from app.settings import get_settings

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_upgrade_head_reads_the_database_url_from_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "scoreboard.db"
    monkeypatch.setenv("SCOREBOARD_DATABASE_URL", f"sqlite:///{database}")
    get_settings.cache_clear()
    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.attributes["configure_logger"] = False

    try:
        command.upgrade(config, "head")
    finally:
        get_settings.cache_clear()

    engine = sa.create_engine(f"sqlite:///{database}")
    try:
        assert "alembic_version" in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
