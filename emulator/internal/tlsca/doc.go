// Package tlsca makes and keeps the emulator's TLS material: a certificate
// authority made once, and a server certificate it signs for the names the
// emulator is reached by (localhost, 127.0.0.1, ::1, the advertised hosts
// and any extra subject alternative names).
//
// With a directory the material lives in it, as
//
//	ca.pem          the CA certificate, the file clients trust (0600)
//	ca-key.pem      the CA's private key (0600)
//	server.pem      the server certificate (0600)
//	server-key.pem  its private key (0600)
//
// and a restart reuses it: the CA is never replaced, and the server
// certificate is made again only when the names it must carry change, when
// it is not signed by the CA, or when it has less than 30 days left. Without
// a directory the material lives in memory for the life of the process.
//
// Keys are ECDSA P-256, which OpenSSL (librdkafka, Python), Java and Go all
// accept. Alternatively, a certificate and key of the user's own are loaded
// as they are; the CA is then the user's, and this package does not know it.
package tlsca
