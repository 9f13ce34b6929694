package framework

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// poll calls cond every interval until it returns true or an error, or timeout passes.
func poll(ctx context.Context, interval, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	return wait.PollUntilContextTimeout(ctx, interval, timeout, true, cond)
}
