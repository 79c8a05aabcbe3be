//go:build container

package specs_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/internal/testclients"
)

// deltaRS reads the Delta table at dir with delta-rs (python deltalake in the
// project's venv, installed by scripts/install-python-deps.sh; FABRICTEST_PYTHON
// names another interpreter). A missing venv or package fails the spec: the
// witness never skips its independent reader.
func deltaRS(ctx context.Context, dir string) testclients.DeltaView {
	GinkgoHelper()
	v, err := testclients.DeltaRS(ctx, dir)
	Expect(err).NotTo(HaveOccurred())
	return v
}
