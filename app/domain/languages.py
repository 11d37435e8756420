"""The languages a tournament's pages speak (issue 17), as BCP 47 tags: English, Japanese,
Traditional and Simplified Chinese, Korean. The organizer picks the tournament's default
among them (the `tournament` line's `language`, a later `language` line); app/i18n holds
the catalogs."""

LANGUAGES = ("en", "ja", "zh-Hant", "zh-Hans", "ko")
DEFAULT_LANGUAGE = "en"
