"""fabrictest for Python: a pytest plugin that runs the Fabric Eventstream
emulator (``fabric_emulator``, ``fabric_workspace``) and helpers for
workspaces, Eventstreams, Lakehouses, destinations, producing over HTTP and
Kafka, and reading Delta tables."""

from ._version import VERSION
from .client import ApiError, Client
from .emulator import FabricEmulator, service_principal_id
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
    "VERSION", "ApiError", "Client", "Connection", "Destination", "EmulatorStartError", "Eventstream",
    "FabricEmulator", "Lakehouse", "Table", "Workspace", "definition", "lakehouse_destination", "service_principal_id",
]
