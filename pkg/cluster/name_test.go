package cluster

import (
	"strings"
	"testing"
)

func TestResolveName(t *testing.T) {
	tests := []struct {
		arg, want, wantErr string
	}{
		{arg: "web", want: "web"},
		{arg: "deploy/web", want: "web"},
		{arg: "deployment/web", want: "web"},
		{arg: "deployments/web", want: "web"},
		{arg: "deployment.apps/web", want: "web"},
		{arg: "deployments.apps/web", want: "web"},
		{arg: "deployments.v1.apps/web", want: "web"},
		{arg: "Deployment/web", want: "web"},
		{arg: "deploy/my.app-1", want: "my.app-1"},
		{arg: "rs/web-abc", wantErr: "rollplan works on Deployments; got replicasets"},
		{arg: "replicaset/web-abc", wantErr: "rollplan works on Deployments; got replicasets"},
		{arg: "sts/db", wantErr: "rollplan works on Deployments; got statefulsets"},
		{arg: "daemonsets.apps/x", wantErr: "rollplan works on Deployments; got daemonsets.apps"},
		{arg: "deployments.extensions/web", wantErr: "rollplan works on Deployments; got deployments.extensions"},
		{arg: "pod/web-1", wantErr: "rollplan works on Deployments; got pods"},
		{arg: "/web", wantErr: "rollplan works on Deployments; got an empty resource type"},
		{arg: "deploy/", wantErr: "a Deployment name is required"},
		{arg: "", wantErr: "a Deployment name is required"},
		{arg: "deploy/web/x", wantErr: `"deploy/web/x": arguments in resource/name form may not have more than one slash`},
		{arg: "Web", wantErr: `invalid Deployment name "Web": a lowercase RFC 1123 subdomain`},
		{arg: "deploy/web_1", wantErr: `invalid Deployment name "web_1"`},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := ResolveName(tc.arg)
			checkResolve(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestResolveArgs(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		want, wantErr string
	}{
		{name: "one name", args: []string{"web"}, want: "web"},
		{name: "type/name", args: []string{"deploy/web"}, want: "web"},
		{name: "TYPE NAME", args: []string{"deployment", "web"}, want: "web"},
		{name: "other TYPE NAME", args: []string{"rs", "web-1"}, wantErr: "rollplan works on Deployments; got replicasets"},
		{name: "two names", args: []string{"deploy/a", "deploy/b"}, wantErr: `one Deployment at a time: got "deploy/a" and "deploy/b"`},
		{name: "TYPE TYPE/NAME", args: []string{"deploy", "deploy/web"}, wantErr: "give either TYPE NAME or TYPE/NAME, not both"},
		{name: "none", args: nil, wantErr: "a Deployment is required: give deploy/NAME (or NAME)"},
		{name: "three", args: []string{"deploy", "a", "b"}, wantErr: "one Deployment at a time: got 3 arguments (deploy a b)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveArgs(tc.args)
			checkResolve(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func checkResolve(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Errorf("got %q, error %v; want error containing %q", got, err, wantErr)
	}
}
