// Package kafkaconfig reads the security settings of the Kafka cluster behind
// the emulator (--kafka host:port,…) in Kafka's own client properties format,
// the file a Java client takes as client.properties, and turns them into
// franz-go options (TLS with crypto/tls, SASL with franz-go's sasl/plain,
// sasl/scram and sasl/kerberos, the last over gokrb5).
//
// Keys read:
//
//	bootstrap.servers                   the cluster, when --kafka does not name it
//	security.protocol                   PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL
//	sasl.mechanism                      PLAIN (default, as in Kafka), SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI
//	sasl.jaas.config                    a PlainLoginModule or ScramLoginModule line with username and password;
//	                                    for GSSAPI a Krb5LoginModule line with useKeyTab=true, keyTab, principal
//	sasl.kerberos.service.name          GSSAPI: the broker's service name (or serviceName in the JAAS line)
//	ssl.truststore.type                 JKS (default, as in Kafka), PKCS12 or PEM
//	ssl.truststore.location             the store file (a PEM file of CA certificates for PEM)
//	ssl.truststore.password             a JKS or PKCS12 store's password
//	ssl.truststore.certificates         PEM CA certificates, inline
//	ssl.keystore.type                   JKS (default), PKCS12 or PEM
//	ssl.keystore.location               the store file with one private key entry (for PEM: the chain and its key)
//	ssl.keystore.password               a JKS or PKCS12 store's password
//	ssl.key.password                    a JKS key entry's own password (default the store's)
//	ssl.keystore.certificate.chain      the chain, inline (with ssl.keystore.key)
//	ssl.keystore.key                    the unencrypted PKCS#8 (or PKCS#1, SEC 1) key, inline
//	ssl.endpoint.identification.algorithm  https (default) or empty: no host name check
//	ssl.enabled.protocols, ssl.protocol TLSv1.2, TLSv1.3: the lowest allowed version
//	client.id                           the client id the emulator's clients send
//	fabrictest.share.credentials        true: the resolve route hands notebooks the
//	                                    SASL credentials and client certificate too
//
// Anything else is refused naming the key, so a setting the emulator would
// silently ignore never makes a connection that differs from the user's
// client: the OAUTHBEARER mechanism, a Kerberos login from a ticket cache
// rather than a keytab and the Java client's kinit and ticket renewal keys
// (sasl.kerberos.kinit.cmd, sasl.kerberos.ticket.renew.*,
// sasl.kerberos.min.time.before.relogin), encrypted PEM keys, JKS and PKCS12
// stores without their passwords, callback handler classes, and keys this
// package does not know.
//
// GSSAPI logs in as the JAAS line's principal (user@REALM; without a realm,
// krb5.conf's default_realm) with its key from the keytab, and asks the KDC
// for a ticket to <service name>/<broker host>. krb5.conf is read as the MIT
// Kerberos library reads it: the files the environment variable KRB5_CONFIG
// lists (colon-separated) when it is set, else /etc/krb5.conf. Java reads
// -Djava.security.krb5.conf instead. The keytab and krb5.conf are read by
// Parse, so that a missing file or a keytab without the principal's key
// fails before anything connects; Probe logs in to the KDC first, naming a
// KDC out of reach or a principal it does not know.
//
// The same keys come from the environment as FABRIC_KAFKA_CONFIG_<KEY>, with
// the mapping of the apache/kafka image's KAFKA_<KEY> variables: strip the
// prefix, lower-case, then "___" is "-", "__" is "_" and "_" is ".". So
// FABRIC_KAFKA_CONFIG_SECURITY_PROTOCOL=SASL_SSL is security.protocol and
// FABRIC_KAFKA_CONFIG_SASL_JAAS_CONFIG is sasl.jaas.config. A variable wins
// over the same key in the file. The prefix is not Kafka's own KAFKA_, which
// many machines set for other reasons (KAFKA_HOME, KAFKA_OPTS).
package kafkaconfig
