module github.com/runnerhq/runner

go 1.26.8

require golang.org/x/crypto v0.58.0

require (
	github.com/dominikbraun/graph v0.23.0 // indirect
	github.com/joho/godotenv v1.5.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.43.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
