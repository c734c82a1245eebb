module github.com/kapi-dev/kapi

go 1.23
