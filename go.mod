module github.com/rdmatour/rdmatour

go 1.26
