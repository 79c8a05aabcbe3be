package gateway

import "time"

// defaultAuthTimeout is how long a connection has to finish SASL unless
// WithAuthTimeout says otherwise.
const defaultAuthTimeout = 10 * time.Second

// preAuthMaxFrame bounds a request frame before SASL completes.
const preAuthMaxFrame = 64 << 10
