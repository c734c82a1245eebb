module github.com/kapi-dev/kapi

go 1.23

require (
	github.com/evanphx/json-patch/v5 v5.9.11 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	sigs.k8s.io/json v0.0.0-20260909141634-11ed52e25bc5 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
