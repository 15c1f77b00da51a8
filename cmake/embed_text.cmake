# cmake -DIN=file -DOUT=file.inc -DNAME=kName -P embed_text.cmake
# Writes OUT defining `constexpr const char* NAME` with the bytes of IN as a raw string literal.
file(READ "${IN}" text)
string(FIND "${text}" ")SEQI_EMBED\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )SEQI_EMBED\"")
endif()
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by cmake/embed_text.cmake; do not edit.\nconstexpr const char* ${NAME} = R\"SEQI_EMBED(${text})SEQI_EMBED\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
