package control

import "testing"

func TestEndpointNames(t *testing.T) {
	for _, c := range []struct {
		amqp       string
		tls, adv   bool
		kafka, out string
	}{
		{"127.0.0.1:5672", false, false, "127.0.0.1:40000", "127.0.0.1"},
		{"127.0.0.1:5671", true, false, "127.0.0.1:40000", "127.0.0.1"},
		{"127.0.0.1:5672", true, false, "127.0.0.1:40000", "127.0.0.1:40000"},
		{"localhost:15672", false, true, "127.0.0.1:40000", "localhost:15672"},
		{"127.0.0.1:41000", false, false, "127.0.0.1:40000", "127.0.0.1:40000"},
	} {
		if got := AMQPEndpointName(c.amqp, c.tls, c.adv, c.kafka); got != c.out {
			t.Errorf("AMQPEndpointName(%s, tls %v, advertised %v, %s) = %s, want %s", c.amqp, c.tls, c.adv, c.kafka, got, c.out)
		}
	}
	if Namespace("127.0.0.1:9093") != "127.0.0.1" || Namespace("127.0.0.1:40000") != "127.0.0.1:40000" {
		t.Error("Namespace: the host alone only on 9093")
	}
	if s := ConnectionString("h", "k", "s", "e", true); s != "Endpoint=sb://h/;SharedAccessKeyName=k;SharedAccessKey=s;UseDevelopmentEmulator=true;EntityPath=e" {
		t.Errorf("ConnectionString = %s", s)
	}
}
