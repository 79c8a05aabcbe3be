// CompressedProducers: Apache kafka-clients' KafkaProducer, once per job in
// one JVM (starting one per job costs seconds each). A job is a properties
// file (the client's settings: bootstrap.servers, security.protocol, …,
// compression.type), a partition and a file of KEY<tab>VALUE lines, sent as
// records to that partition of the topic. It prints how many records were
// acknowledged in all; any failed send fails the program.
//
//   java -cp '.cache/java-clients/*' CompressedProducers.java TOPIC PROPS PARTITION LINES [PROPS PARTITION LINES]…
import java.io.FileReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

public class CompressedProducers {
    public static void main(String[] args) throws Exception {
        String topic = args[0];
        int acked = 0;
        for (int i = 1; i + 2 < args.length; i += 3) {
            acked += produce(args[i], topic, Integer.parseInt(args[i + 1]), Files.readAllLines(Path.of(args[i + 2])));
        }
        System.out.println(acked);
    }

    static int produce(String propsFile, String topic, int partition, List<String> lines) throws Exception {
        Properties props = new Properties();
        try (FileReader r = new FileReader(propsFile)) {
            props.load(r);
        }
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(props)) {
            for (String line : lines) {
                int tab = line.indexOf('\t');
                sent.add(p.send(new ProducerRecord<>(topic, partition, line.substring(0, tab), line.substring(tab + 1))));
            }
            p.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        return sent.size();
    }
}
