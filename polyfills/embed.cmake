# Writes the bytes of IN as a C++ array definition to OUT (see include/vkcl/polyfills.h).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "// Generated from polyfills/*.cl by polyfills/embed.cmake.\n"
     "#include \"vkcl/polyfills.h\"\n"
     "namespace vkcl::polyfills {\n"
     "const unsigned char kSpirv[] = {\n${bytes}};\n"
     "const unsigned long kSpirvSize = sizeof kSpirv;\n"
     "}  // namespace vkcl::polyfills\n")
