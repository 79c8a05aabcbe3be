"""fabrictest's Spark adapter: the Fabric notebook's Eventstream snippet on JVM Spark and on Sail.

    from spark_agent import install
    install(spark)                      # FABRIC_EMULATOR_URL; identity from AZURE_*, FABRIC_EMULATOR_TOKEN, or the default
    df = spark.readStream.format("kafka").options(**{"eventstream.itemid": item_id,
                                                     "eventstream.datasourceid": datasource_id}).load()

See :mod:`spark_agent.eventstream_kafka`.
"""

from .emulator import EmulatorClient, FabricApiError, Source
from .eventstream_kafka import Agent, EventstreamError, install, installed, uninstall
from .kafka_schema import KAFKA_SCHEMA, KAFKA_SCHEMA_WITH_HEADERS, kafka_schema
from .options import KafkaOptionError

__all__ = [
    "install", "uninstall", "installed", "Agent",
    "EventstreamError", "FabricApiError", "KafkaOptionError",
    "EmulatorClient", "Source",
    "KAFKA_SCHEMA", "KAFKA_SCHEMA_WITH_HEADERS", "kafka_schema",
]
