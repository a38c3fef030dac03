# Warnings for the project's own targets (call accelcheck_target_options).
function(accelcheck_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wcast-align -Wimplicit-fallthrough)
  if(ACCELCHECK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(ACCELCHECK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
