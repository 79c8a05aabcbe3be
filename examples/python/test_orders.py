"""Orders published by the app land in the Lakehouse table, through an
Eventstream deployed from its definition, as in Fabric. Only the fixtures of
the installed fabrictest plugin are used: fabric_emulator, fabric_workspace."""

import orders

import fabrictest


def deploy(workspace):
    lakehouse = workspace.lakehouse("sales")
    eventstream = workspace.deploy_eventstream("orders", {
        "sources": [{"name": "shop", "type": "CustomEndpoint", "properties": {}}],
        "streams": [{"name": "orders-stream", "type": "DefaultStream", "properties": {},
                     "inputNodes": [{"name": "shop"}]}],
        "destinations": [fabrictest.lakehouse_destination("to-lake", lakehouse, "orders", "orders-stream",
                                                          minimumRows=1)],
    })
    return eventstream, lakehouse


def test_published_orders_land_in_the_table(fabric_workspace):
    eventstream, lakehouse = deploy(fabric_workspace)
    conn = eventstream.connection("shop")
    ca = str(conn.ca) if conn.ca else None
    sent = orders.publish(conn.bootstrap, conn.event_hub, conn.connection_string,
                          [{"id": i, "amount": 10.0 * i} for i in range(1, 4)], ca_file=ca)
    assert sent == 3
    rows = lakehouse.table("orders").wait_rows(3, timeout=30)
    assert sorted((r["id"], r["amount"]) for r in rows) == [(1, 10.0), (2, 20.0), (3, 30.0)]


def test_http_produce_lands_too(fabric_emulator, fabric_workspace):
    eventstream, lakehouse = deploy(fabric_workspace)
    eventstream.produce({"id": 7, "amount": 1.5})
    assert lakehouse.table("orders").wait_rows(1, timeout=30) == [{"id": 7, "amount": 1.5}]
    assert fabric_emulator.env()["FABRIC_EMULATOR_URL"] == fabric_emulator.url
