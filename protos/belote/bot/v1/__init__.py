"""Bot protocol v1: ``bot.proto`` and its generated ``bot_pb2`` / ``bot_pb2_grpc`` (``make proto``)."""
