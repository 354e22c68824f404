// placeholder main replaced by the CLI helper
int main() { return 0; }
