const solution = (a, b) => a + b;

module.exports = solution;
