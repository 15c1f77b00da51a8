#include "seqi/cli/run.hpp"

int main(int argc, char** argv) { return seqi::verify_main(argc, argv); }
