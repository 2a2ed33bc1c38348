echo "hello from bash"
