// The producer of Microsoft's tutorial "Stream real-time events from a
// custom app to a Microsoft Fabric KQL database", in the tutorial's shape:
// an EventHubProducerClient made from the custom endpoint's connection
// string and event hub name sends 5 batches of 10 JSON events. The two
// values the tutorial has the reader paste come from the environment here.
const { EventHubProducerClient } = require("@azure/event-hubs");

const connectionString = process.env.EVENTHUB_CONNECTION_STRING;
const entityName = process.env.EVENTHUB_NAME;

// One reading of a made-up sensor, as the tutorial's generated rows. The
// SDK JSON-encodes an object body into the event's data section.
function makeRow(batch, index) {
  return {
    id: batch * 10 + index,
    timestamp: new Date().toISOString(),
    device: `sensor-${index % 3}`,
    temperature: 20 + ((batch * 10 + index) % 7),
  };
}

async function main() {
  const producer = new EventHubProducerClient(connectionString, entityName);
  for (let b = 0; b < 5; b++) {
    const batch = await producer.createBatch();
    for (let i = 0; i < 10; i++) {
      if (!batch.tryAdd({ body: makeRow(b, i) })) {
        throw new Error(`event ${i} of batch ${b} does not fit`);
      }
    }
    await producer.sendBatch(batch);
    console.log(`sent batch ${b} of ${batch.count} events`);
  }
  await producer.close();
}

main().catch((err) => {
  console.error("producer failed:", err);
  process.exit(1);
});
