"""The bot protocol (``belote.bot.v1``)."""
