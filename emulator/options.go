package emulator

import (
	"crypto/rsa"
	"errors"
	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

type config struct {
	kafka           string
	dataDir         string
	embeddedPort    int
	partitions      int32
	replicas        int16 // WithKafkaReplicationFactor; 0: automatic
	minInsync       int   // WithKafkaMinInsyncReplicas; 0: automatic
	pageSize        int
	maxRequestBytes int64
	logger          *slog.Logger
	kqlURL          string
	jobWebhook      string
	advertised      []string
	signingKey      *rsa.PrivateKey
	remoteTokens    bool
	produceTimeout  time.Duration
	asyncOperations bool
	sampleInterval  time.Duration
	sampleBatch     int
	endpointAddr    string // the custom endpoint's Kafka listener; "off" disables it
	endpointAdv     string
	httpTimeouts    HTTPTimeouts
	entraApps       []EntraApp    // the strict registry's applications
	entraStrict     bool          // only entraApps get tokens
	entraTenant     string        // the one tenant ("": any)
	trustedIssuers  []string      // other OpenID issuers' URLs
	issuerClient    *http.Client  // reads trusted issuers' documents
	tls             tlsSettings   // WithTLS, WithTLSCertificate
	kafkaSec        kafkaSettings // WithKafkaConfigFile, WithKafkaProperties
	noPortal        bool          // WithoutPortal
	amqp            amqpSettings  // WithAMQPEndpoint, WithAMQPEndpointAdvertised
	faults          []FaultRule   // WithFaults
}

func defaults() config {
	return config{kafka: "embedded", partitions: 4, pageSize: 100, logger: slog.New(slog.DiscardHandler), endpointAddr: "127.0.0.1:0",
		amqp: amqpSettings{addr: "127.0.0.1:0"}}
}

// Option configures a Server.
type Option func(*config) error

// WithKafka picks the broker: "embedded" (the default; franz-go's kfake
// in-process), "none" (resolve, produce and consume answer 501) or a
// comma-separated host:port list of a real cluster.
func WithKafka(spec string) Option {
	return func(c *config) error {
		if strings.TrimSpace(spec) == "" {
			return errors.New("kafka: empty spec; want embedded, none or host:port")
		}
		c.kafka = spec
		return nil
	}
}

// WithDataDir keeps metadata, the token signing key and the embedded
// broker's log under dir, so a restart finds them. Without it everything
// lives in memory.
func WithDataDir(dir string) Option {
	return func(c *config) error { c.dataDir = dir; return nil }
}

// WithEmbeddedKafkaPort fixes the loopback port of the embedded broker
// (default 0: a free port).
func WithEmbeddedKafkaPort(port int) Option {
	return func(c *config) error {
		if port < 0 || port > 65535 {
			return errors.New("embedded kafka port: out of range")
		}
		c.embeddedPort = port
		return nil
	}
}

// WithPartitions sets the partition count of new Eventstream topics (default 4).
func WithPartitions(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 1000 {
			return errors.New("partitions: want 1 to 1000")
		}
		c.partitions = int32(n)
		return nil
	}
}

// WithPageSize sets the largest page a list route answers (default 100).
func WithPageSize(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return errors.New("page size: want at least 1")
		}
		c.pageSize = n
		return nil
	}
}

// WithMaxRequestBytes caps request bodies (default 16 MiB).
func WithMaxRequestBytes(n int64) Option {
	return func(c *config) error {
		if n < 1024 {
			return errors.New("max request bytes: want at least 1024")
		}
		c.maxRequestBytes = n
		return nil
	}
}

// WithLogger sets the logger for server-side failures (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithKQLURL attaches the Kusto engine that Eventhouse destinations ingest
// into (kustainer, the kustofake stand-in, or any engine URL). Without it,
// Eventhouse items still work, and their produces answer 502 naming --kql-url.
func WithKQLURL(url string) Option {
	return func(c *config) error { c.kqlURL = strings.TrimRight(url, "/"); return nil }
}

// WithJobWebhook posts every job instance that no registered handler runs
// to url as JSON; a 2xx answer completes it, anything else fails it.
func WithJobWebhook(url string) Option {
	return func(c *config) error { c.jobWebhook = url; return nil }
}

// WithKafkaAdvertised sets the bootstrap servers the resolve route hands to
// clients, when they differ from those the emulator dials (an emulator in a
// container reaching kafka:9092 while notebooks on the host use
// 127.0.0.1:9092). Default: the dialled list.
func WithKafkaAdvertised(servers ...string) Option {
	return func(c *config) error { c.advertised = servers; return nil }
}

// WithSigningKey signs tokens with key instead of a key generated at start
// (or kept in the data dir); share one key between emulators of a test
// binary to save the RSA key generation.
func WithSigningKey(key *rsa.PrivateKey) Option {
	return func(c *config) error {
		if key == nil {
			return errors.New("signing key: nil")
		}
		c.signingKey = key
		return nil
	}
}

// WithRemoteTokens lets POST /_emulator/token answer callers that are not on
// loopback (an emulator in a container, reached through a published port).
// Default: loopback only.
func WithRemoteTokens() Option {
	return func(c *config) error { c.remoteTokens = true; return nil }
}

// WithProduceTimeout bounds how long a produce waits for the broker's
// acknowledgements before answering 502 (default 30 s).
func WithProduceTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return errors.New("produce timeout: want a positive duration")
		}
		c.produceTimeout = d
		return nil
	}
}

// WithAsyncOperations makes every call that Fabric may run as a long-running
// operation (item creation, on the generic and the typed routes) answer 202
// with an empty body and the Location, x-ms-operation-id and Retry-After
// headers, so clients' polling code is exercised: GET /v1/operations/{id}
// reports NotStarted, Running, then Succeeded or Failed (with the error
// envelope), and GET /v1/operations/{id}/result answers the created item.
// Default: such calls complete synchronously (201 with the item).
func WithAsyncOperations() Option {
	return func(c *config) error { c.asyncOperations = true; return nil }
}

// WithSampleDataRate paces the SampleData sources of deployed Eventstream
// definitions: each produces a batch of events every interval (default 10
// events every second).
func WithSampleDataRate(events int, every time.Duration) Option {
	return func(c *config) error {
		if events < 1 || every <= 0 {
			return errors.New("sample data rate: want at least 1 event and a positive interval")
		}
		c.sampleBatch, c.sampleInterval = events, every
		return nil
	}
}

// WithKafkaEndpoint sets the listen address of the custom endpoint's Kafka
// surface: the address the connection strings of CustomEndpoint sources
// and destinations point at, where clients authenticate with SASL PLAIN
// ("$ConnectionString" and the string) and reach the Eventstream's topic
// on the attached broker. The default is a free loopback port; "off"
// turns it off (connection routes then answer 501).
func WithKafkaEndpoint(addr string) Option {
	return func(c *config) error {
		if strings.TrimSpace(addr) == "" {
			return errors.New("kafka endpoint: empty address; want host:port or off")
		}
		c.endpointAddr = addr
		return nil
	}
}

// WithKafkaEndpointAdvertised sets the host:port connection strings name
// when clients reach the custom endpoint by another address than it
// listens on (an emulator in a container: the mapped port).
func WithKafkaEndpointAdvertised(hostport string) Option {
	return func(c *config) error { c.endpointAdv = hostport; return nil }
}

// HTTPTimeouts bounds the API server's connections. A zero field keeps
// its default.
type HTTPTimeouts struct {
	// ReadHeader bounds the request line and headers (default 10 s).
	ReadHeader time.Duration
	// Read bounds the whole request, body included (default 60 s: a
	// 16 MiB produce body needs only 280 kB/s to arrive in time).
	Read time.Duration
	// Write bounds the time from the end of the headers to the end of the
	// answer. The default covers the slowest produce: Read for its body,
	// the produce timeout for the broker, the wait for destinations and a
	// minute to answer (3 min with the other defaults).
	Write time.Duration
	// Idle bounds a kept-alive connection between requests (default 120 s).
	Idle time.Duration
}

// WithHTTPTimeouts sets the API server's read, write and idle timeouts
// (see HTTPTimeouts for the defaults).
func WithHTTPTimeouts(t HTTPTimeouts) Option {
	return func(c *config) error {
		if t.ReadHeader < 0 || t.Read < 0 || t.Write < 0 || t.Idle < 0 {
			return errors.New("http timeouts: want positive durations, or zero for the default")
		}
		c.httpTimeouts = t
		return nil
	}
}

// DefaultPrincipal is the principal id (oid) of tokens minted without one:
// the Admin of every workspace it creates.
const DefaultPrincipal = auth.DefaultPrincipal
