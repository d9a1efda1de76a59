"""The bot protocol's generated code (``make proto`` from ``protos/belote/bot/v1/bot.proto``):
``bot_pb2`` (messages) and ``bot_pb2_grpc`` (the ``BotService`` stub and servicer). The
protocol package on the wire is ``belote.bot.v1``."""
