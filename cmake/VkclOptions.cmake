# One place for the compile options every vkcl target uses.
function(vkcl_set_compile_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         -Wno-missing-field-initializers)
  if(VKCL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(VKCL_SANITIZE)
  add_compile_options(-fsanitize=${VKCL_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${VKCL_SANITIZE})
endif()
