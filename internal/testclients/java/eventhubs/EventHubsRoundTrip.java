// EventHubsRoundTrip: azure-messaging-eventhubs as Fabric's Entra ID sample
// for Eventstream writes it (fabric-docs "Connect to Eventstream using
// Microsoft Entra ID authentication": an EventHubClientBuilder with the
// namespace, the event hub and a DefaultAzureCredential, the service
// principal in AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET), or
// with the connection strings of the custom endpoint's Event hub tab. It
// sends the events of stdin (one base64 body a line) in one batch, prints
// "sent N", then receives from every partition as many events as the
// partition's properties say it holds, and prints each body, base64, one a
// line.
//
// Usage:
//   java -cp '<jars>/*' EventHubsRoundTrip.java credential <namespace> <eventHubName> <consumerGroup>
//   java -cp '<jars>/*' EventHubsRoundTrip.java connection-string <sourceString> <destinationString> <consumerGroup>
//
// The emulator's CA comes from the JVM's trust store
// (-Djavax.net.ssl.trustStore=…), its token service from
// AZURE_AUTHORITY_HOST. The one line that differs from the sample is
// disableInstanceDiscovery(): MSAL asks login.microsoftonline.com about an
// authority host it does not know, and no environment variable turns that
// off.
import com.azure.core.util.IterableStream;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubConsumerClient;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.EventPosition;
import com.azure.messaging.eventhubs.models.PartitionEvent;
import com.azure.messaging.eventhubs.PartitionProperties;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

public class EventHubsRoundTrip {
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: EventHubsRoundTrip credential|connection-string <a> <b> <consumerGroup>");
            System.exit(2);
        }
        List<byte[]> bodies = readBodies();
        EventHubClientBuilder producerBuilder = builder(args[0], args[1], args[2], true);
        EventHubClientBuilder consumerBuilder = builder(args[0], args[1], args[2], false).consumerGroup(args[3]);

        try (EventHubProducerClient producer = producerBuilder.buildProducerClient()) {
            EventDataBatch batch = producer.createBatch();
            for (byte[] body : bodies) {
                EventData event = new EventData(body);
                event.setContentType("application/json");
                if (!batch.tryAdd(event)) {
                    throw new IllegalStateException("event does not fit the batch");
                }
            }
            producer.send(batch);
        }
        System.out.println("sent " + bodies.size());

        try (EventHubConsumerClient consumer = consumerBuilder.buildConsumerClient()) {
            int got = 0;
            for (String partition : consumer.getPartitionIds()) {
                PartitionProperties props = consumer.getPartitionProperties(partition);
                if (props.isEmpty()) {
                    continue;
                }
                int want = (int) (props.getLastEnqueuedSequenceNumber() - props.getBeginningSequenceNumber() + 1);
                IterableStream<PartitionEvent> events = consumer.receiveFromPartition(
                        partition, want, EventPosition.earliest(), Duration.ofSeconds(30));
                for (PartitionEvent pe : events) {
                    System.out.println(Base64.getEncoder().encodeToString(pe.getData().getBody()));
                    got++;
                }
            }
            System.err.println("received " + got);
        }
    }

    // builder is the producer's (source) or the consumer's (destination)
    // client builder: with DefaultAzureCredential, one namespace and event
    // hub for both; with connection strings, the source's and the
    // destination's string (each names its event hub in EntityPath).
    static EventHubClientBuilder builder(String mode, String a, String b, boolean producer) {
        EventHubClientBuilder builder = new EventHubClientBuilder();
        switch (mode) {
            case "credential":
                return builder.credential(a, b, new DefaultAzureCredentialBuilder().disableInstanceDiscovery().build());
            case "connection-string":
                return builder.connectionString(producer ? a : b);
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    static List<byte[]> readBodies() throws Exception {
        List<byte[]> bodies = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line; (line = in.readLine()) != null; ) {
            if (!line.isEmpty()) {
                bodies.add(Base64.getDecoder().decode(line));
            }
        }
        return bodies;
    }
}
