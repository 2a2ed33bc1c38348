const solution = (a: number, b: number): number => a + b;

export default solution;
