double plain(double x) {
  return x * x;
}
int k = 3;