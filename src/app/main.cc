#include "app/commands.h"

int main(int argc, char** argv) { return tessera::app::Run(argc, argv); }
