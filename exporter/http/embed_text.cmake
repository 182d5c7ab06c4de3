# Build step: writes a text file into a C++ source file as a string_view constant, so the
# exporter serves it without reading files at run time.
#
#   cmake -DIN=FILE -DOUT=FILE.cpp -DHEADER=path/of/header.h -DNAME=kConstant -P embed_text.cmake
file(READ "${IN}" text)
set(delimiter "podwait_embedded")
string(FIND "${text}" ")${delimiter}\"" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's end )${delimiter}\"")
endif()
file(WRITE "${OUT}"
     "// Generated from ${IN} by embed_text.cmake at build time.\n"
     "#include \"${HEADER}\"\n\nnamespace podwait {\n"
     "const std::string_view ${NAME} = R\"${delimiter}(${text})${delimiter}\";\n"
     "}  // namespace podwait\n")
