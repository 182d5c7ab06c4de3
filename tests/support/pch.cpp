// The translation unit that builds the test code's precompiled header (tests/CMakeLists.txt).
