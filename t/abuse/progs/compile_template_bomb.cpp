// abuse: R31 compile bomb: template instantiation doubling per level (2^26 distinct types)
// expect: compile=fail !stdout~RAN
template <int N, unsigned long M> struct Bomb
{
  static const unsigned long value = Bomb<N - 1, M * 2>::value + Bomb<N - 1, M * 2 + 1>::value;
};
template <unsigned long M> struct Bomb<0, M>
{
  static const unsigned long value = M;
};
int
main ()
{
  return (int) (Bomb<26, 1>::value & 1);
}
