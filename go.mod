module github.com/agent-oracle/oracle

go 1.26
