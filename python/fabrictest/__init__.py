"""fabrictest for Python: a pytest plugin that runs the Fabric Eventstream
emulator (``fabric_emulator``, ``fabric_workspace``) and helpers for
workspaces, Eventstreams, Lakehouses, Eventhouses, destinations, producing
over HTTP, Kafka and the Event Hubs SDK, and reading Delta and Kusto tables."""

from ._version import VERSION
from .client import ApiError, Client
from .emulator import FabricEmulator, service_principal_id
from .eventhouse import Eventhouse, KqlDatabase, KustoError, KustoTable, eventhouse_destination, kusto_query
from .items import (
    Connection,
    Destination,
    Eventstream,
    Lakehouse,
    Table,
    Workspace,
    definition,
    lakehouse_destination,
)
from .process import EmulatorStartError

__version__ = VERSION
__all__ = [
    "VERSION", "ApiError", "Client", "Connection", "Destination", "EmulatorStartError", "Eventhouse", "Eventstream",
    "FabricEmulator", "KqlDatabase", "KustoError", "KustoTable", "Lakehouse", "Table", "Workspace", "definition",
    "eventhouse_destination", "kusto_query", "lakehouse_destination", "service_principal_id",
]
