// Command fabric-emulator runs the Fabric Eventstream emulator standalone.
//
//	fabric-emulator serve [--addr 127.0.0.1:5080] [--kafka embedded|none|host:port,…] [--kafka-config client.properties] [--data-dir DIR] [--kql-url URL] [--kafka-endpoint 127.0.0.1:9093] [--amqp-endpoint 127.0.0.1:5672]
//	fabric-emulator token [--addr 127.0.0.1:5080] [--principal GUID] [--audience URL] [--expires-in SECONDS]
//	fabric-emulator advertise-endpoint [--addr 127.0.0.1:5080] [--amqp] HOST:PORT
//	fabric-emulator ca [--data-dir DIR] [--addr 127.0.0.1:5080]
//	fabric-emulator version
//
// serve is the default. Every flag has an environment variable (see -h).
// serve prints one line with the URL when ready and shuts down cleanly on
// SIGINT or SIGTERM. token asks the running emulator for a bearer token and
// prints it. advertise-endpoint tells the running emulator the address its
// custom endpoint's Kafka clients use (a container's published port), which
// connection strings and broker metadata name from then on; with --amqp,
// the address of its Event Hubs (AMQP) endpoint, which the strings'
// Endpoint names from then on. ca prints the
// CA certificate clients trust when serve runs with --tls. version prints
// the module version and the commit the binary was built from.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = serve(args, os.Stdout, os.Stderr)
	case "token":
		err = token(args, os.Stdout)
	case "advertise-endpoint":
		err = advertiseEndpoint(args, os.Stdout)
	case "ca":
		err = ca(args, os.Stdout)
	case "version":
		err = version(args, os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q: want serve, token, advertise-endpoint, ca or version", cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fabric-emulator:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", env("FABRIC_EMULATOR_ADDR", "127.0.0.1:5080"), "listen address (FABRIC_EMULATOR_ADDR)")
	kafka := fs.String("kafka", env("FABRIC_KAFKA_BOOTSTRAP", "embedded"), "embedded, none, or host:port[,host:port] of a real cluster (FABRIC_KAFKA_BOOTSTRAP)")
	dataDir := fs.String("data-dir", env("FABRIC_EMULATOR_DATA", ""), "where metadata, the token key and OneLake files live; empty keeps everything in memory (FABRIC_EMULATOR_DATA)")
	kqlURL := fs.String("kql-url", env("FABRIC_KQL_URL", ""), "Kusto engine for Eventhouse destinations (FABRIC_KQL_URL)")
	kafkaPort := fs.Int("embedded-kafka-port", envInt("FABRIC_EMBEDDED_KAFKA_PORT", 0), "loopback port of the embedded broker; 0 picks a free one (FABRIC_EMBEDDED_KAFKA_PORT)")
	partitions := fs.Int("partitions", envInt("FABRIC_EVENTSTREAM_PARTITIONS", 4), "partitions of each new Eventstream topic (FABRIC_EVENTSTREAM_PARTITIONS)")
	replicas := fs.Int("kafka-replication-factor", envInt("FABRIC_KAFKA_REPLICATION_FACTOR", 0), "replication factor of new Eventstream topics; 0 is min(3, brokers) (FABRIC_KAFKA_REPLICATION_FACTOR)")
	minInsync := fs.Int("kafka-min-insync-replicas", envInt("FABRIC_KAFKA_MIN_INSYNC_REPLICAS", 0), "min.insync.replicas of new Eventstream topics; 0 is 2 with three brokers or more, else the cluster's (FABRIC_KAFKA_MIN_INSYNC_REPLICAS)")
	jobWebhook := fs.String("job-webhook", env("FABRIC_JOB_WEBHOOK", ""), "URL each job instance (manual or Activator-triggered) is POSTed to as JSON; 2xx completes it (FABRIC_JOB_WEBHOOK)")
	advertised := fs.String("kafka-advertised", env("FABRIC_KAFKA_ADVERTISED", ""), "bootstrap servers handed to clients by the resolve route when they differ from --kafka (FABRIC_KAFKA_ADVERTISED)")
	remoteTokens := fs.Bool("remote-tokens", os.Getenv("FABRIC_REMOTE_TOKENS") == "true", "mint tokens for non-loopback callers of POST /_emulator/token, e.g. in a container, and open the portal to them (FABRIC_REMOTE_TOKENS=true)")
	asyncOps := fs.Bool("async-operations", os.Getenv("FABRIC_ASYNC_OPERATIONS") == "true", "answer item creation as a long-running operation (202, then poll /v1/operations/{id}) (FABRIC_ASYNC_OPERATIONS=true)")
	endpoint := fs.String("kafka-endpoint", env("FABRIC_KAFKA_ENDPOINT", "127.0.0.1:9093"), "listen address of the custom endpoint's Kafka surface (SASL PLAIN with the connection strings of CustomEndpoint nodes), which takes Event Hubs (AMQP) clients too; 127.0.0.1:0 picks a free port, off turns it off (FABRIC_KAFKA_ENDPOINT)")
	endpointAdv := fs.String("kafka-endpoint-advertised", env("FABRIC_KAFKA_ENDPOINT_ADVERTISED", ""), "host:port connection strings name when clients reach --kafka-endpoint by another address (FABRIC_KAFKA_ENDPOINT_ADVERTISED)")
	amqpEndpoint := fs.String("amqp-endpoint", env("FABRIC_AMQP_ENDPOINT", ""), "listen address of the custom endpoint's Event Hubs surface (AMQP 1.0 for the Event Hubs SDKs; AMQPS with --tls); default 127.0.0.1:5672, 127.0.0.1:5671 with --tls; 127.0.0.1:0 picks a free port; off turns Event Hubs off, here and on --kafka-endpoint (FABRIC_AMQP_ENDPOINT)")
	amqpAdv := fs.String("amqp-endpoint-advertised", env("FABRIC_AMQP_ENDPOINT_ADVERTISED", ""), "host:port connection strings name when Event Hubs clients reach --amqp-endpoint by another address (FABRIC_AMQP_ENDPOINT_ADVERTISED)")
	kafkaConfig := fs.String("kafka-config", env("FABRIC_KAFKA_CONFIG", ""), "Kafka client properties file (client.properties) with the security settings of the --kafka cluster: security.protocol, sasl.mechanism, sasl.jaas.config, PEM ssl.truststore.* and ssl.keystore.*; FABRIC_KAFKA_CONFIG_<KEY> variables add or override keys (FABRIC_KAFKA_CONFIG)")
	portal := fs.Bool("portal", os.Getenv("FABRIC_EMULATOR_PORTAL") != "false", "serve the portal at /_emulator/portal/ (FABRIC_EMULATOR_PORTAL=false turns it off)")
	verbose := fs.Bool("v", false, "log every server-side failure at debug detail")
	identity := identityFlags(fs)
	tlsFlags := addTLSFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	identityOpts, err := identity()
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	opts := []emulator.Option{
		emulator.WithKafka(*kafka),
		emulator.WithDataDir(*dataDir),
		emulator.WithEmbeddedKafkaPort(*kafkaPort),
		emulator.WithPartitions(*partitions),
		emulator.WithKafkaReplicationFactor(*replicas),
		emulator.WithKafkaMinInsyncReplicas(*minInsync),
		emulator.WithLogger(logger),
		emulator.WithKQLURL(*kqlURL),
		emulator.WithJobWebhook(*jobWebhook),
		emulator.WithKafkaEndpoint(*endpoint),
		emulator.WithKafkaEndpointAdvertised(*endpointAdv),
		emulator.WithKafkaConfigFile(*kafkaConfig),
		emulator.WithAMQPEndpointAdvertised(*amqpAdv),
		emulator.WithKafkaEnv(os.Environ()),
	}
	if *advertised != "" {
		opts = append(opts, emulator.WithKafkaAdvertised(strings.Split(*advertised, ",")...))
	}
	if *remoteTokens {
		opts = append(opts, emulator.WithRemoteTokens())
	}
	if *asyncOps {
		opts = append(opts, emulator.WithAsyncOperations())
	}
	if !*portal {
		opts = append(opts, emulator.WithoutPortal())
	}
	opts = append(opts, identityOpts...)
	opts = append(opts, tlsFlags.options(*addr)...)
	if *amqpEndpoint == "" {
		*amqpEndpoint = "127.0.0.1:5672"
		if *tlsFlags.on {
			*amqpEndpoint = "127.0.0.1:5671"
		}
	}
	opts = append(opts, emulator.WithAMQPEndpoint(*amqpEndpoint))
	listeners := append(serveListenFlags(*addr, *endpoint, *kafkaPort), listenFlag{"--amqp-endpoint", *amqpEndpoint,
		"start this one with --amqp-endpoint 127.0.0.1:0 (a free port) or --amqp-endpoint off, or stop the other one"})
	srv, err := emulator.New(opts...)
	if err != nil {
		return explainListen(err, listeners...)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return explainListen(fmt.Errorf("listen: %w", err), listeners...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	kafkaDesc := srv.KafkaKind()
	if b := srv.KafkaBootstrap(); len(b) > 0 {
		kafkaDesc += " " + strings.Join(b, ",")
	}
	if ep := srv.KafkaEndpoint(); ep != "" {
		kafkaDesc += ", custom endpoint " + ep
	}
	if ep := srv.AMQPEndpoint(); ep != "" {
		kafkaDesc += ", event hubs " + ep
	}
	fmt.Fprintf(stdout, "fabric-emulator ready at %s://%s (kafka: %s, data: %s%s)\n", srv.Scheme(), ln.Addr(), kafkaDesc, cmp.Or(*dataDir, "in memory"), tlsDesc(srv, *dataDir))
	if *portal {
		fmt.Fprintf(stdout, "fabric-emulator portal at %s://%s%s\n", srv.Scheme(), ln.Addr(), emulator.PortalPath)
	}
	select {
	case err := <-errc:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

func token(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	addr := fs.String("addr", env("FABRIC_EMULATOR_ADDR", "127.0.0.1:5080"), "address of the running emulator (FABRIC_EMULATOR_ADDR)")
	principal := fs.String("principal", "", "principal id (oid) of the token; default is the emulator's default user")
	audience := fs.String("audience", "", "https://api.fabric.microsoft.com (default) or https://analysis.windows.net/powerbi/api")
	expiresIn := fs.Int("expires-in", 0, "lifetime in seconds (default 3600)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	form := url.Values{}
	for k, v := range map[string]string{"principal": *principal, "audience": *audience} {
		if v != "" {
			form.Set(k, v)
		}
	}
	if *expiresIn != 0 {
		form.Set("expiresIn", strconv.Itoa(*expiresIn))
	}
	base, client, err := emulatorClient(*addr, env("FABRIC_EMULATOR_DATA", ""))
	if err != nil {
		return err
	}
	resp, err := client.PostForm(base+"/_emulator/token", form)
	if err != nil {
		return fmt.Errorf("ask the emulator at %s for a token (is it running?): %w", base, err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Message     string `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("read token response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mint token: %s: %s", resp.Status, body.Message)
	}
	fmt.Fprintln(stdout, body.AccessToken)
	return nil
}

func advertiseEndpoint(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("advertise-endpoint", flag.ContinueOnError)
	addr := fs.String("addr", env("FABRIC_EMULATOR_ADDR", "127.0.0.1:5080"), "address of the running emulator (FABRIC_EMULATOR_ADDR)")
	amqp := fs.Bool("amqp", false, "advertise the Event Hubs (AMQP) endpoint instead of the Kafka one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("advertise-endpoint: want one HOST:PORT")
	}
	base, client, err := emulatorClient(*addr, env("FABRIC_EMULATOR_DATA", ""))
	if err != nil {
		return err
	}
	route, what := "/_emulator/kafka-endpoint", "endpoint"
	if *amqp {
		route, what = "/_emulator/amqp-endpoint", "amqp endpoint"
	}
	body, _ := json.Marshal(map[string]string{"advertised": fs.Arg(0)})
	resp, err := client.Post(base+route, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return fmt.Errorf("ask the emulator at %s to advertise %s (is it running?): %w", base, fs.Arg(0), err)
	}
	defer resp.Body.Close()
	var out struct {
		Advertised string `json:"advertised"`
		Message    string `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("advertise %s: %s: %s", what, resp.Status, out.Message)
	}
	fmt.Fprintln(stdout, out.Advertised)
	return nil
}
