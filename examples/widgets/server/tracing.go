package server

import (
	"fmt"
	"net/url"
	"os"

	"sigs.k8s.io/yaml"
)

// TracingConfiguration is the part of kube-apiserver's
// apiserver.config.k8s.io TracingConfiguration that --tracing-config-file
// reads: where to send spans and how many requests to trace.
type TracingConfiguration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Endpoint is the OTLP gRPC collector (host:port); kube-apiserver's
	// default is localhost:4317.
	Endpoint *string `json:"endpoint,omitempty"`
	// SamplingRatePerMillion is how many requests in a million without a
	// sampled traceparent are traced, 0 to 1,000,000; kube-apiserver's
	// default is 0 (only the requests whose traceparent is sampled).
	SamplingRatePerMillion *int32 `json:"samplingRatePerMillion,omitempty"`
}

// defaultTracingEndpoint is kube-apiserver's collector when a tracing
// configuration names none.
const defaultTracingEndpoint = "localhost:4317"

// tracingAPIVersions are the versions kube-apiserver reads the
// configuration in.
var tracingAPIVersions = map[string]bool{
	"apiserver.config.k8s.io/v1": true, "apiserver.config.k8s.io/v1beta1": true, "apiserver.config.k8s.io/v1alpha1": true,
}

// loadTracingConfig reads and checks a --tracing-config-file, returning
// its endpoint and sampling rate with kube-apiserver's defaults filled in.
func loadTracingConfig(path string) (endpoint string, rate int32, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", 0, fmt.Errorf("tracing config file: %w", err)
	}
	var c TracingConfiguration
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return "", 0, fmt.Errorf("tracing config file %s: %w", path, err)
	}
	if c.Kind != "TracingConfiguration" || !tracingAPIVersions[c.APIVersion] {
		return "", 0, fmt.Errorf("tracing config file %s: %s %s is not an apiserver.config.k8s.io TracingConfiguration", path, c.APIVersion, c.Kind)
	}
	endpoint = defaultTracingEndpoint
	if c.Endpoint != nil {
		if _, err := url.Parse(*c.Endpoint); err != nil {
			return "", 0, fmt.Errorf("tracing config file %s: endpoint: %w", path, err)
		}
		endpoint = *c.Endpoint
	}
	if c.SamplingRatePerMillion != nil {
		rate = *c.SamplingRatePerMillion
		if rate < 0 || rate > 1_000_000 {
			return "", 0, fmt.Errorf("tracing config file %s: samplingRatePerMillion: Invalid value: %d: sampling rate must be positive, and not greater than 1 million", path, rate)
		}
	}
	return endpoint, rate, nil
}
