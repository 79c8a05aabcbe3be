// SaslSslProducer: Apache kafka-clients' KafkaProducer, configured from a
// properties file exactly as a Fabric Eventstream's custom endpoint says
// (bootstrap.servers, security.protocol=SASL_SSL, sasl.mechanism=PLAIN,
// sasl.jaas.config with "$ConnectionString" and the connection string),
// plus the truststore the test names. It sends the lines of stdin as
// records to the topic and prints how many were acknowledged.
//
//   java -cp '.cache/java-clients/*' SaslSslProducer.java client.properties TOPIC < lines
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

public class SaslSslProducer {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileReader r = new FileReader(args[0])) {
            props.load(r);
        }
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(props);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            for (String line; (line = in.readLine()) != null; ) {
                sent.add(p.send(new ProducerRecord<>(args[1], line)));
            }
            p.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        System.out.println(sent.size());
    }
}
