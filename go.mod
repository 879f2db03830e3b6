module github.com/cubridge/cubridge

go 1.24.0

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/tools v0.38.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
)
